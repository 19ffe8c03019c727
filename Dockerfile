# syntax=docker/dockerfile:1
# Multi-stage build: install and build with dev dependencies, ship only what runs.

FROM node:24-slim AS base
ENV NODE_ENV=production
WORKDIR /app

FROM base AS deps
COPY package.json package-lock.json ./
RUN npm ci --include=dev --no-audit --no-fund

# NODE_ENV=production: the processes refuse to start without SESSION_SECRET and PUBLIC_URL (run
# with `-e PUBLIC_URL=https://… -e SESSION_SECRET=…`; on Fly they are secrets, docs/deploy.md).

FROM base AS production-deps
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM deps AS build
COPY . .
RUN npm run build

FROM base
# Shown on the status page and in pawtrait_build_info: fly deploy --build-arg BUILD_VERSION=$(git rev-parse --short HEAD)
ARG BUILD_VERSION
ENV BUILD_VERSION=${BUILD_VERSION}
# ffmpeg renders the offline videos, fonts-dejavu draws their captions; ca-certificates for HTTPS.
RUN apt-get update \
  && apt-get install -y --no-install-recommends ffmpeg ca-certificates fonts-dejavu-core \
  && rm -rf /var/lib/apt/lists/*
ENV FFMPEG_PATH=/usr/bin/ffmpeg
# Fewer glibc malloc arenas keep sharp's memory from fragmenting (see docs/decisions/0006).
ENV MALLOC_ARENA_MAX=2
COPY --from=production-deps /app/node_modules ./node_modules
COPY --from=build /app/build ./build
COPY --from=build /app/public ./public
COPY package.json ./
# The web runs the Remix build (app/ and domain/ bundled); the worker and scripts load domain/ from source.
COPY domain ./domain
COPY platform ./platform
COPY worker ./worker
COPY server ./server
COPY scripts ./scripts
COPY migrations ./migrations
USER node
EXPOSE 3000
# The web's young generation bounded as npm run start:web does (scripts/local-database.ts webNodeFlags).
CMD ["node", "--max-semi-space-size=32", "server/index.ts"]
