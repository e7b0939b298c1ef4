#!/usr/bin/env bash
# Best effort: a local PostgreSQL for the result-store test. Exits non-zero when it
# cannot provide one (the test then skips); never touches anything but loopback.
set -u
if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  timeout 300 apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq postgresql >/dev/null 2>&1 || exit 1
fi
version=$(ls /etc/postgresql 2>/dev/null | sort -n | tail -1)
[ -n "$version" ] || exit 1
pg_ctlcluster "$version" main start >/dev/null 2>&1 || pg_ctlcluster "$version" main status >/dev/null 2>&1 || exit 1
su postgres -c "psql -tAc \"SELECT 1 FROM pg_roles WHERE rolname='nashzoo_ci'\"" | grep -q 1 \
  || su postgres -c "psql -qc \"CREATE USER nashzoo_ci WITH PASSWORD 'nashzoo_ci'\"" || exit 1
su postgres -c "psql -tAc \"SELECT 1 FROM pg_database WHERE datname='nashzoo_ci'\"" | grep -q 1 \
  || su postgres -c "createdb -O nashzoo_ci nashzoo_ci" || exit 1
echo "postgresql+psycopg://nashzoo_ci:nashzoo_ci@127.0.0.1/nashzoo_ci"
