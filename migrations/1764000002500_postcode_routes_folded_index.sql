-- Up Migration
-- A quote reads the routing rows of one destination, its country and postcode compared as the
-- freight engine folds them (normaliseCountry: ASCII letters upper-cased, white space trimmed;
-- normalisePostcode: ASCII letters upper-cased, white space removed). postcode_routes_lookup_idx
-- holds the codes as sent, so it cannot serve that comparison and every quote read every routing
-- row: with ~5,500 rows, ~6.5 ms of PostgreSQL's CPU per quote, two thirds of its share
-- (`npm run bench -- quote`). This index holds the folded codes. Its expressions must be exactly
-- those of loadFreightData (src/modules/freight/freight.repository.ts), characters and all, or the
-- planner will not use it; test/modules/freight/freight.loader.test.ts checks that it does.
CREATE INDEX postcode_routes_folded_idx ON postcode_routes (
  btrim(translate(country_region_code, U&'abcdefghijklmnopqrstuvwxyz', U&'ABCDEFGHIJKLMNOPQRSTUVWXYZ'), U&'\0009\000A\000B\000C\000D \00A0\1680\2000\2001\2002\2003\2004\2005\2006\2007\2008\2009\200A\2028\2029\202F\205F\3000\FEFF'),
  translate(postcode, U&'abcdefghijklmnopqrstuvwxyz\0009\000A\000B\000C\000D \00A0\1680\2000\2001\2002\2003\2004\2005\2006\2007\2008\2009\200A\2028\2029\202F\205F\3000\FEFF', U&'ABCDEFGHIJKLMNOPQRSTUVWXYZ')
);
