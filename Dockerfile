# syntax=docker/dockerfile:1
# Multi-stage: build with dev dependencies, run with production ones only.

# Node.js 24, the current LTS (test/deploy/dockerfile.test.ts runs these steps without a Docker engine).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the "prepare" build needs the sources, which are copied next.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY sql ./sql
# npm run build's postbuild: the initialised embedded database a new data folder starts from.
COPY scripts ./scripts
RUN npm run build

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    AGENT_MEMORY_DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY sql ./sql
# The CLI on PATH, for `docker compose exec agent-memory agent-memory token issue NAME`.
RUN ln -s /app/dist/cli/main.js /usr/local/bin/agent-memory && chmod +x /app/dist/cli/main.js \
    && mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# exec form: node is PID 1's child-free main process and receives SIGTERM directly.
CMD ["node", "dist/cli/main.js", "serve"]
