// Loaded into a process whose memory a bench reads (`--expose-gc --import` it): SIGUSR2 runs a full
// garbage collection, so that what the bench reads is what the process holds, not garbage not yet
// collected (bench/live-updates.ts).
process.on('SIGUSR2', () => (globalThis as { gc?: () => void }).gc?.())
