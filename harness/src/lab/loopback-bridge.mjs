// Lets the test process, in the machine's own namespace, reach a TCP port inside a lab namespace
// without any route into the lab: run inside the namespace with `ip netns exec`, it listens on a
// Unix socket file (files are seen from every network namespace) and joins each connection to
// HOST:PORT there. The lab's other half listens on 127.0.0.1 and joins to the socket file.
//
//   loopback-bridge.mjs SOCKET_PATH HOST PORT MAX_SECONDS
//
// Prints "ready" once listening; stops when stdin closes or MAX_SECONDS pass.
import { rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';

const [socketPath, host, port, maxSeconds] = process.argv.slice(2);
rmSync(socketPath, { force: true });
const server = createServer((incoming) => {
  const outgoing = connect({ host, port: Number(port) });
  incoming.pipe(outgoing).pipe(incoming);
  const close = () => {
    incoming.destroy();
    outgoing.destroy();
  };
  incoming.on('error', close).on('close', close);
  outgoing.on('error', close).on('close', close);
});
server.listen(socketPath, () => console.log('ready'));
const stop = () => {
  server.close();
  rmSync(socketPath, { force: true });
  process.exit(0);
};
setTimeout(stop, Number(maxSeconds) * 1000).unref();
process.stdin.on('end', stop).on('error', stop).resume();
