# ckg in a container: one executable and a data volume.
#   docker build -t ckg .
#   docker run -p 8402:8402 -v ckg-data:/data ckg
# The first start builds the default dataset into /data (about ten seconds), then serves.

FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build

FROM debian:bookworm-slim
# DuckDB's native library needs libstdc++ (already in the base image); curl serves the health check.
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates curl && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/dist/ckg /usr/local/bin/ckg
RUN useradd --system --home /data ckg && mkdir -p /data && chown ckg /data
USER ckg
ENV CKG_HOST=0.0.0.0 CKG_PORT=8402 CKG_DATA_DIR=/data
VOLUME /data
EXPOSE 8402
HEALTHCHECK --interval=30s --timeout=3s CMD curl -fsS http://127.0.0.1:8402/healthz || exit 1
ENTRYPOINT ["/usr/local/bin/ckg"]
CMD ["serve"]
