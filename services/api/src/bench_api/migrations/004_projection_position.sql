-- The last BENCH_EVENTS stream sequence folded into the tables, written in the same
-- transaction as the rows. The projector locks this row (SELECT ... FOR UPDATE) per batch,
-- which also serialises projectors of several api replicas.
CREATE TABLE IF NOT EXISTS projection_position (
  name VARCHAR(64) CHARACTER SET ascii NOT NULL,
  last_seq BIGINT UNSIGNED NOT NULL,
  updated_at DATETIME(3) NOT NULL,
  PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

INSERT INTO projection_position (name, last_seq, updated_at)
VALUES ('projector', 0, UTC_TIMESTAMP(3))
ON DUPLICATE KEY UPDATE name = name;
