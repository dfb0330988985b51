-- Up Migration
-- A page's positions in a large sparse bitmap found block by block (issue 28 item 4).
--
-- search_bit_positions (migration 1764000004400) tested 64 bits at a time: at 226,176 documents a
-- class with a handful of documents (a product number's typos) was 3,534 turns of its loop, 1.8 ms
-- per class and page. It now counts a block of 4,096 bits at once first and looks inside only the
-- blocks that hold a wanted bit, 64 at a time as before. Same arguments, same answer.
CREATE OR REPLACE FUNCTION search_bit_positions(bits bit varying, skip integer, take integer) RETURNS SETOF integer
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE ROWS 50 AS $$
DECLARE
  n integer := length(bits);
  block_start integer := 0;
  block_width integer;
  block bit varying;
  start integer;
  width integer;
  chunk bit varying;
  ones integer;
  skipped integer := 0;
  taken integer := 0;
BEGIN
  IF take <= 0 THEN RETURN; END IF;
  WHILE block_start < n LOOP
    block_width := least(4096, n - block_start);
    block := substring(bits FROM block_start + 1 FOR block_width);
    ones := bit_count(block);
    IF ones > 0 AND skipped + ones <= skip THEN
      skipped := skipped + ones;
    ELSIF ones > 0 THEN
      start := 0;
      WHILE start < block_width LOOP
        width := least(64, block_width - start);
        chunk := substring(block FROM start + 1 FOR width);
        ones := bit_count(chunk);
        IF ones > 0 THEN
          IF skipped + ones <= skip THEN
            skipped := skipped + ones;
          ELSE
            FOR i IN 0 .. width - 1 LOOP
              IF get_bit(chunk, i) = 1 THEN
                IF skipped < skip THEN
                  skipped := skipped + 1;
                ELSE
                  RETURN NEXT block_start + start + i;
                  taken := taken + 1;
                  IF taken >= take THEN RETURN; END IF;
                END IF;
              END IF;
            END LOOP;
          END IF;
        END IF;
        start := start + width;
      END LOOP;
    END IF;
    block_start := block_start + block_width;
  END LOOP;
END $$;
