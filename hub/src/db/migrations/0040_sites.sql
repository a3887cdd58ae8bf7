-- 0040: sites as the unit of access (docs/sites.md).
--
-- A collector belongs to one site; sites can be grouped; a user sees either every site or a
-- set of sites and site groups. The migration creates one site, "Default site", with a fixed
-- id, and every collector (existing and future) lands there unless an admin moves it: nothing
-- is orphaned, and a hub that never uses sites behaves exactly as before. Every existing user
-- keeps seeing everything (`all_sites` defaults to true) until an admin gives them a set.
CREATE TABLE IF NOT EXISTS sites (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name       varchar(100) NOT NULL,
  -- IANA name (Europe/Paris) or none; checked by the API, not here (PGlite has no tz list).
  time_zone  varchar(64),
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Unique case-insensitively: "Gate B" and "gate b" would be one site to a person.
CREATE UNIQUE INDEX IF NOT EXISTS sites_name_lower_idx ON sites (lower(name));

INSERT INTO sites (id, name) VALUES ('00000000-0000-0000-0000-000000000001', 'Default site')
ON CONFLICT DO NOTHING;

CREATE TABLE IF NOT EXISTS site_groups (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name       varchar(100) NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS site_groups_name_lower_idx ON site_groups (lower(name));

CREATE TABLE IF NOT EXISTS site_group_members (
  group_id uuid NOT NULL REFERENCES site_groups (id) ON DELETE CASCADE,
  site_id  uuid NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
  PRIMARY KEY (group_id, site_id)
);
CREATE INDEX IF NOT EXISTS site_group_members_site_idx ON site_group_members (site_id);

-- RESTRICT: a site that still holds collectors cannot be deleted (move them first).
ALTER TABLE collectors ADD COLUMN IF NOT EXISTS site_id uuid NOT NULL
  DEFAULT '00000000-0000-0000-0000-000000000001' REFERENCES sites (id) ON DELETE RESTRICT;
CREATE INDEX IF NOT EXISTS collectors_site_idx ON collectors (site_id);

ALTER TABLE users ADD COLUMN IF NOT EXISTS all_sites boolean NOT NULL DEFAULT true;

-- A user's explicit set: each row names a site or a site group, never both.
CREATE TABLE IF NOT EXISTS user_sites (
  user_id  uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  site_id  uuid REFERENCES sites (id) ON DELETE CASCADE,
  group_id uuid REFERENCES site_groups (id) ON DELETE CASCADE,
  CHECK ((site_id IS NULL) <> (group_id IS NULL))
);
CREATE UNIQUE INDEX IF NOT EXISTS user_sites_site_idx ON user_sites (user_id, site_id) WHERE site_id IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS user_sites_group_idx ON user_sites (user_id, group_id) WHERE group_id IS NOT NULL;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'alpr_app') THEN
    GRANT SELECT, INSERT, UPDATE, DELETE ON sites, site_groups, site_group_members, user_sites TO alpr_app;
  END IF;
END
$$;
