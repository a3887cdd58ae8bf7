-- 0002: users and two-factor material.
CREATE TABLE IF NOT EXISTS users (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email             text NOT NULL,
  password_hash     text NOT NULL,
  role              text NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
  is_active         boolean NOT NULL DEFAULT true,
  twofa_required    boolean NOT NULL DEFAULT true,
  twofa_enrolled    boolean NOT NULL DEFAULT false,
  twofa_enrolled_at timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
-- Login names compare case-insensitively.
CREATE UNIQUE INDEX IF NOT EXISTS users_email_lower_key ON users (lower(email));

-- One TOTP secret per user. The secret is stored encrypted (ciphertext includes its nonce);
-- salt is the per-user 16-byte key-derivation salt. pending = true until the first code is
-- verified. last_used_step (unix time / 30 s) blocks replay of a code inside its window.
CREATE TABLE IF NOT EXISTS user_two_factor (
  user_id           uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  secret_ciphertext bytea NOT NULL,
  salt              bytea NOT NULL CHECK (octet_length(salt) = 16),
  pending           boolean NOT NULL DEFAULT true,
  last_used_step    integer,
  created_at        timestamptz NOT NULL DEFAULT now(),
  verified_at       timestamptz
);

-- 10 backup codes per enrollment, SHA-256 hex only.
CREATE TABLE IF NOT EXISTS backup_codes (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash  char(64) NOT NULL CHECK (code_hash ~ '^[0-9a-f]{64}$'),
  used_at    timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, code_hash)
);

CREATE TABLE IF NOT EXISTS two_factor_attempts (
  id             bigserial PRIMARY KEY,
  user_id        uuid REFERENCES users (id) ON DELETE SET NULL,
  attempt_type   text NOT NULL CHECK (attempt_type IN ('totp', 'backup_code', 'setup')),
  success        boolean NOT NULL,
  ip_address     varchar(45),
  user_agent     text,
  failure_reason text,
  created_at     timestamptz NOT NULL DEFAULT now()
);
-- Lockout counts recent failures per user.
CREATE INDEX IF NOT EXISTS two_factor_attempts_user_created_idx ON two_factor_attempts (user_id, created_at);
