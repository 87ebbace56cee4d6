-- One row per (run, sample, epoch): the first SampleCompleted wins.
CREATE TABLE IF NOT EXISTS evaluations (
  run_id VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  sample_id VARCHAR(255) NOT NULL,
  epoch INT UNSIGNED NOT NULL,
  sample_index INT UNSIGNED NOT NULL,
  score CHAR(1) CHARACTER SET ascii NOT NULL,
  answer MEDIUMTEXT NULL,
  target TEXT NULL,
  explanation MEDIUMTEXT NULL,
  latency_ms BIGINT NULL,
  input_tokens BIGINT UNSIGNED NOT NULL DEFAULT 0,
  output_tokens BIGINT UNSIGNED NOT NULL DEFAULT 0,
  total_tokens BIGINT UNSIGNED NOT NULL DEFAULT 0,
  reasoning_tokens BIGINT UNSIGNED NOT NULL DEFAULT 0,
  cache_read_tokens BIGINT UNSIGNED NOT NULL DEFAULT 0,
  cost DOUBLE NOT NULL DEFAULT 0,
  generation_time_ms BIGINT UNSIGNED NOT NULL DEFAULT 0,
  metadata_json JSON NULL,
  runner_id VARCHAR(128) NULL,
  completed_at DATETIME(3) NOT NULL,
  event_seq BIGINT UNSIGNED NOT NULL,
  PRIMARY KEY (run_id, sample_id, epoch),
  -- Counts per run (completed / skipped / correct) are recomputed from this index alone.
  INDEX idx_evaluations_run_score (run_id, score, sample_id),
  INDEX idx_evaluations_run_order (run_id, sample_index, epoch)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
