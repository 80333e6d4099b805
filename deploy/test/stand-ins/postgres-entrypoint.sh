#!/bin/sh
# First start: a cluster whose POSTGRES_USER has POSTGRES_PASSWORD, and POSTGRES_DB, as the official image does;
# the password may be given as a file, POSTGRES_PASSWORD_FILE (a secret), read as the image reads it.
set -eu
user=${POSTGRES_USER:-postgres}
if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then echo "error: both POSTGRES_PASSWORD and POSTGRES_PASSWORD_FILE are set (but are exclusive)" >&2; exit 1; fi
  POSTGRES_PASSWORD=$(cat "$POSTGRES_PASSWORD_FILE")
  unset POSTGRES_PASSWORD_FILE
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password=$(mktemp)
  printf '%s' "${POSTGRES_PASSWORD:?the stand-in needs POSTGRES_PASSWORD}" > "$password"
  initdb --username="$user" --pwfile="$password" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$password"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
    pg_ctl --silent --wait --options="-c listen_addresses=''" start >/dev/null
    createdb --username="$user" "$POSTGRES_DB"
    pg_ctl --silent --wait --mode=fast stop
  fi
fi
exec "$@"
