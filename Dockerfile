# ckg in a container: one executable and a data volume.
#   docker build -t ckg .                 (for another platform: docker buildx build --platform linux/arm64)
#   docker run -p 8402:8402 -v ckg-data:/data ckg
# The first start builds the default dataset into /data, then serves; the health check waits for it.
# test/dockerfile.test.ts lints this file (dockerfile-utils) and checks the points below; no Docker
# engine runs in CI.

# Stage 1: the executable, made by the same command as outside a container (`npm run build`, which
# builds for the platform it runs on: linux-x64 or linux-arm64 here).
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# npm ci: exactly the lockfile's versions. Bun itself comes from the `bun` npm package.
RUN npm ci --no-audit --no-fund
COPY . .
# The commit for `ckg --version` when the build context has no .git (docker build --build-arg CKG_COMMIT=$(git rev-parse --short HEAD)).
ARG CKG_COMMIT=""
RUN CKG_BUILD_COMMIT="$CKG_COMMIT" npm run build

# Stage 2: the executable alone, on a small Debian, as an unprivileged user.
FROM debian:bookworm-slim
# DuckDB's native library needs libstdc++ (in the base image); curl runs the health check.
RUN apt-get update \
  && apt-get install -y --no-install-recommends ca-certificates curl \
  && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --home-dir /data --shell /usr/sbin/nologin ckg \
  && mkdir -p /data \
  && chown ckg:ckg /data
COPY --from=build /src/dist/ckg /usr/local/bin/ckg
USER ckg
ENV CKG_HOST=0.0.0.0 CKG_PORT=8402 CKG_DATA_DIR=/data
VOLUME /data
EXPOSE 8402
# Ready, not just alive: /readyz answers 200 once a snapshot is loaded (503 while the first start
# builds the default dataset, which the start period covers).
HEALTHCHECK --interval=30s --timeout=5s --start-period=180s --retries=3 \
  CMD curl -fsS http://127.0.0.1:8402/readyz > /dev/null || exit 1
ENTRYPOINT ["/usr/local/bin/ckg"]
CMD ["serve"]
