-- Covering indexes of the REST run list (GET /runs?view=page), so that no filter combination
-- reads table rows to count or to choose a page (see bench_api/queries/run_list.py):
--   idx_runs_page     listing order (created_at, id) with every filtered column: the ids of a
--                     page, and counts over recent runs
--   idx_runs_count    counts by status over the other runs; a page of a small filtered set
--   idx_runs_model_cover / idx_runs_email_cover  the same when model / triggeredBy filter
--   idx_runs_changes  which runs changed after a stream position (count cache validity)
-- Each is created through a prepared statement guarded by information_schema, because
-- CREATE INDEX IF NOT EXISTS is MariaDB-only and a half-applied file is re-run from the top.
SET @bench_ddl = IF(
  (SELECT COUNT(*) FROM information_schema.statistics
   WHERE table_schema = DATABASE() AND table_name = 'runs' AND index_name = 'idx_runs_page') = 0,
  'CREATE INDEX idx_runs_page ON runs (run_kind, created_at, id, status, disabled, is_canary, full_suite, benchmark, quality_score, duration_ms, started_at, finished_at, model, triggered_by_email)',
  'DO 0');
PREPARE bench_stmt FROM @bench_ddl;
EXECUTE bench_stmt;
DEALLOCATE PREPARE bench_stmt;
SET @bench_ddl = IF(
  (SELECT COUNT(*) FROM information_schema.statistics
   WHERE table_schema = DATABASE() AND table_name = 'runs' AND index_name = 'idx_runs_count') = 0,
  'CREATE INDEX idx_runs_count ON runs (run_kind, status, disabled, is_canary, full_suite, benchmark, quality_score, duration_ms, started_at, finished_at, created_at)',
  'DO 0');
PREPARE bench_stmt FROM @bench_ddl;
EXECUTE bench_stmt;
DEALLOCATE PREPARE bench_stmt;
SET @bench_ddl = IF(
  (SELECT COUNT(*) FROM information_schema.statistics
   WHERE table_schema = DATABASE() AND table_name = 'runs' AND index_name = 'idx_runs_model_cover') = 0,
  'CREATE INDEX idx_runs_model_cover ON runs (model, run_kind, status, disabled, is_canary, full_suite, benchmark, quality_score, duration_ms, started_at, finished_at, created_at)',
  'DO 0');
PREPARE bench_stmt FROM @bench_ddl;
EXECUTE bench_stmt;
DEALLOCATE PREPARE bench_stmt;
SET @bench_ddl = IF(
  (SELECT COUNT(*) FROM information_schema.statistics
   WHERE table_schema = DATABASE() AND table_name = 'runs' AND index_name = 'idx_runs_email_cover') = 0,
  'CREATE INDEX idx_runs_email_cover ON runs (triggered_by_email, run_kind, status, disabled, is_canary, full_suite, benchmark, quality_score, duration_ms, started_at, finished_at, created_at)',
  'DO 0');
PREPARE bench_stmt FROM @bench_ddl;
EXECUTE bench_stmt;
DEALLOCATE PREPARE bench_stmt;
SET @bench_ddl = IF(
  (SELECT COUNT(*) FROM information_schema.statistics
   WHERE table_schema = DATABASE() AND table_name = 'runs' AND index_name = 'idx_runs_changes') = 0,
  'CREATE INDEX idx_runs_changes ON runs (last_event_seq, created_at)',
  'DO 0');
PREPARE bench_stmt FROM @bench_ddl;
EXECUTE bench_stmt;
DEALLOCATE PREPARE bench_stmt;
