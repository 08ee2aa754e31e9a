# Build stage: compile TypeScript (native modules build against this image's Node).
# Node 22 LTS (.nvmrc), pinned to a release: a rebuild gets the same runtime.
FROM node:22.23.3-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:22.23.3-bookworm-slim
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY demo ./demo
COPY audit-console ./audit-console
COPY console ./console
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:3000/health/ready').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# The same Node.js options as `npm start` (package.json): see docs/operations.md "Configuration".
CMD ["node", "--max-old-space-size=320", "dist/src/main.js"]
