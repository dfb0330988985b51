-- Up Migration
-- Job workers that are alive (issue: orders stranded after a crash). graphile-worker marks a job it
-- runs with the worker's id (`locked_by`) and frees an abandoned lock only after 4 hours. Every
-- worker process records its graphile-worker worker ids here and refreshes `beat_at` every few
-- seconds; a sweep in every worker process frees the jobs locked by an id with no recent beat
-- (graphile_worker.force_unlock_workers) and removes the rows of processes that stopped beating.
-- Times are the database's now(), so the processes' clocks never matter.

CREATE TABLE worker_heartbeats (
  worker_id   text PRIMARY KEY,
  -- For operators: which process on which machine runs the worker.
  host        text NOT NULL,
  pid         integer NOT NULL,
  started_at  timestamptz NOT NULL DEFAULT now(),
  beat_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX worker_heartbeats_beat_at_idx ON worker_heartbeats (beat_at);
