// Loaded with `--import` into every hub and appliance process that a test, a benchmark or
// `npm start` forks. When the parent dies without stopping its children (a test killed by its
// timeout, a SIGKILLed runner), the IPC channel closes: the child then stops itself the normal
// way (SIGTERM, so buffers close cleanly) and is killed after 15 s if that hangs. Without
// this, orphaned hubs kept running for hours and held their ports and PGlite folders.
// Plain JavaScript: the bundled appliance runs without tsx.
process.once('disconnect', () => {
  setTimeout(() => process.kill(process.pid, 'SIGKILL'), 15_000).unref();
  process.kill(process.pid, 'SIGTERM');
});
