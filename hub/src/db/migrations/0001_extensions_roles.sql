-- 0001: extensions and the application role.
-- pg_trgm powers fuzzy plate search (similarity > 0.6) and wildcard search via GIN indexes.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Production runs the hub as the login-less role alpr_app (granted to the hub's login user),
-- so that even a compromised hub cannot UPDATE or DELETE detections or the audit log: the
-- grants in 0008 leave those privileges out. Roles are cluster-wide and CREATE ROLE has no
-- IF NOT EXISTS; two databases migrating at once on one cluster (parallel test runs) can
-- race here, hence the duplicate_object/unique_violation handler. A migration user without
-- CREATEROLE skips the role with a notice; 0008 then skips the grants.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    BEGIN
      CREATE ROLE alpr_app NOLOGIN;
    EXCEPTION
      WHEN duplicate_object OR unique_violation THEN NULL;
      WHEN insufficient_privilege THEN
        RAISE NOTICE 'alpr_app role not created (no CREATEROLE privilege); grants will be skipped';
    END;
  END IF;
END
$$;
