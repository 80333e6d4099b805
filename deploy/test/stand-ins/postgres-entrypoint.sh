#!/bin/sh
# First start: a cluster whose POSTGRES_USER has POSTGRES_PASSWORD, and POSTGRES_DB, as the official image does;
# the password may be given as a file, POSTGRES_PASSWORD_FILE (a secret), read as the image reads it: as
# root, before it drops to postgres, so a file only root may read (Compose's bind-mounted secret) will do.
set -eu
user=${POSTGRES_USER:-postgres}
if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then echo "error: both POSTGRES_PASSWORD and POSTGRES_PASSWORD_FILE are set (but are exclusive)" >&2; exit 1; fi
  POSTGRES_PASSWORD=$(cat "$POSTGRES_PASSWORD_FILE")
  export POSTGRES_PASSWORD
  unset POSTGRES_PASSWORD_FILE
fi
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" && chown postgres:postgres "$PGDATA" && chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
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
