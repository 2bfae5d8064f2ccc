# syntax=docker/dockerfile:1
#
# One image for both binaries (quarterdeck-operator, quarterdeck-api) and the
# built web console; the Helm chart charts/quarterdeck picks the binary per
# Deployment. Build from the repository root:
#
#   docker build -t quarterdeck/quarterdeck:0.1.0 .
#
# The binaries talk TLS with rustls (ring), so the runtime image needs no
# OpenSSL. It runs as the unprivileged user 10001 and works with a read-only
# root filesystem (/tmp should be a volume).

ARG RUST_VERSION=1.95
ARG NODE_VERSION=20
ARG DEBIAN_RELEASE=bookworm

# ---- the two release binaries ----------------------------------------------------
FROM rust:${RUST_VERSION}-slim-${DEBIAN_RELEASE} AS rust-build
WORKDIR /src
COPY . .
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target,sharing=locked \
    cargo build --release --locked --bin quarterdeck-operator --bin quarterdeck-api \
 && install -D -m 0755 target/release/quarterdeck-operator /out/quarterdeck-operator \
 && install -D -m 0755 target/release/quarterdeck-api /out/quarterdeck-api

# ---- the web console ---------------------------------------------------------------
FROM node:${NODE_VERSION}-${DEBIAN_RELEASE}-slim AS web-build
WORKDIR /src/web
COPY web/package.json web/package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund --loglevel=error
COPY web/ ./
RUN npm run build

# ---- runtime -------------------------------------------------------------------------
FROM debian:${DEBIAN_RELEASE}-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates tzdata \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 quarterdeck \
 && useradd --system --uid 10001 --gid 10001 --no-create-home \
      --home-dir /nonexistent --shell /usr/sbin/nologin quarterdeck
COPY --from=rust-build /out/ /usr/local/bin/
COPY --from=web-build /src/web/dist/ /usr/share/quarterdeck/web/
ENV QUARTERDECK_WEB_DIR=/usr/share/quarterdeck/web \
    QUARTERDECK_LISTEN=0.0.0.0:8080 \
    QUARTERDECK_ADMIN_LISTEN=0.0.0.0:8081 \
    QUARTERDECK_LOG_FORMAT=json
LABEL org.opencontainers.image.title="Quarterdeck" \
      org.opencontainers.image.description="Quarterdeck operator, console API and web console" \
      org.opencontainers.image.source="https://github.com/quarterdeck-dev/quarterdeck" \
      org.opencontainers.image.licenses="Apache-2.0"
# Numeric, so Kubernetes can verify runAsNonRoot.
USER 10001:10001
EXPOSE 8080 8081
# quarterdeck-api by default; the operator is `quarterdeck-operator`.
CMD ["quarterdeck-api"]
