-- 0048: a check a statement makes on its own result, failing the statement (and so its
-- transaction) when the result is not what the caller expects.
--
-- Ingest's store statement (hub/src/ingest/batch-sql.ts storeDetections) travels with the
-- batch's COMMIT, so the hub no longer sees its answer before the transaction commits. The
-- two things it used to check on that answer, that the collector's chain head moved forward
-- and that every row and alert check was written, are checked here instead, inside the
-- statement: a failure aborts the transaction, and its COMMIT becomes a ROLLBACK.
--
-- VOLATILE (the default) so the planner never folds a call away.
CREATE OR REPLACE FUNCTION alpr_check(ok boolean, message text) RETURNS boolean
  LANGUAGE plpgsql
  AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION '%', message USING ERRCODE = 'data_exception';
  END IF;
  RETURN true;
END
$$;
