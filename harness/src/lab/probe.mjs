// The network lab's measuring probe: one agent per namespace, started with `ip netns exec` (plain
// JavaScript, so it needs no TypeScript loader). It serves TCP and UDP on PORT (every address,
// IPv4 and IPv6) for other agents to measure against, and runs measurements on request, so a
// measurement costs no process start. The client side always opens the connection, so an agent
// behind NAT can measure against one on a public address.
//
//   probe.mjs agent PORT MAX_SECONDS
//
// Prints "ready", then reads one JSON request a line on stdin and answers each with one JSON line
// on stdout, carrying the request's id: {"id", "op", "host", "port", "count", "timeoutMs"}.
//   whoami     the address the server sees this client as (NAT shows the router's)
//   down N     the server sends N bytes; rate from the first byte to the last
//   up N       this client sends N bytes; rate until the server has them all
//   udp N      N datagrams of 100 bytes, 1,000 a second (about 1 Mbit/s with headers, so a slow
//              link's queue does not overflow and count as loss), tagged with a burst id
//   udp-count  how many datagrams of a burst arrived here (asked of the receiving agent)
// An answer is the result, or {"error": …}. Stops when stdin closes or MAX_SECONDS pass.
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect, createServer } from 'node:net';
import { createInterface } from 'node:readline';

const [role, ...args] = process.argv.slice(2);

/** Datagrams received per burst id (8 random bytes at the head of each datagram). */
const bursts = new Map();

function serve(port, maxSeconds) {
  const udp = createSocket({ type: 'udp6', ipv6Only: false });
  udp.on('message', (datagram) => {
    const burst = datagram.subarray(0, 8).toString('hex');
    bursts.set(burst, (bursts.get(burst) ?? 0) + 1);
  });
  const tcp = createServer((socket) => {
    socket.on('error', () => socket.destroy());
    let head = '';
    const onData = (chunk) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\n');
      if (end < 0) return;
      socket.off('data', onData);
      let request;
      try {
        request = JSON.parse(head.slice(0, end));
      } catch {
        return void socket.destroy(); // not one of the lab's probes
      }
      const rest = Buffer.from(head.slice(end + 1), 'latin1');
      answer(socket, request, rest);
    };
    socket.on('data', onData);
  });
  function answer(socket, request, rest) {
    if (request.op === 'whoami') {
      socket.end(`${JSON.stringify({ address: socket.remoteAddress.replace(/^::ffff:/, '') })}\n`);
    } else if (request.op === 'down') {
      const chunk = Buffer.alloc(64 * 1024, 0x5a);
      let left = request.bytes;
      const write = () => {
        while (left > 0) {
          const size = Math.min(left, chunk.length);
          left -= size;
          if (!socket.write(chunk.subarray(0, size))) return void socket.once('drain', write);
        }
        socket.end();
      };
      write();
    } else if (request.op === 'up') {
      let received = rest.length;
      const done = () => socket.end(`${JSON.stringify({ received })}\n`);
      if (received >= request.bytes) return done();
      socket.on('data', (chunk) => {
        received += chunk.length;
        if (received >= request.bytes) done();
      });
    } else {
      socket.destroy();
    }
  }
  let listening = 0;
  const ready = () => (listening += 1) === 2 && console.log('ready');
  udp.bind(port, '::', ready);
  tcp.listen({ port, host: '::', ipv6Only: false }, ready);
  const stop = () => process.exit(0);
  setTimeout(stop, maxSeconds * 1000).unref();
  process.stdin.on('end', stop).on('error', stop).resume();
}

/** Opens a connection, sends one request line; resolves with the socket once connected. */
function request(host, port, body) {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port }, () => {
      socket.write(`${JSON.stringify(body)}\n`);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** The one JSON line the server answers with. */
function replyOf(socket) {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('end', () => {
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new Error(`no answer from the probe server (${JSON.stringify(text)})`));
      }
    });
    socket.once('error', reject);
  });
}

async function client(host, port, op, count, burst) {
  // Asked of the receiving agent itself, not over the network, so loss cannot touch the answer.
  if (op === 'udp-count') return { received: bursts.get(burst) ?? 0 };
  if (op === 'whoami') return replyOf(await request(host, port, { op }));
  if (op === 'down') {
    const socket = await request(host, port, { op, bytes: count });
    return new Promise((resolve, reject) => {
      let bytes = 0;
      let first = 0;
      socket.on('data', (chunk) => {
        if (bytes === 0) first = performance.now();
        bytes += chunk.length;
      });
      socket.on('end', () => {
        const ms = performance.now() - first;
        resolve({ bytes, ms, kbit: (bytes * 8) / ms });
      });
      socket.once('error', reject);
    });
  }
  if (op === 'up') {
    const started = performance.now();
    const socket = await request(host, port, { op, bytes: count });
    const chunk = Buffer.alloc(64 * 1024, 0x5a);
    for (let left = count; left > 0; left -= chunk.length) {
      if (!socket.write(chunk.subarray(0, Math.min(left, chunk.length)))) {
        await new Promise((drained) => socket.once('drain', drained));
      }
    }
    const { received } = await replyOf(socket);
    const ms = performance.now() - started;
    return { bytes: received, ms, kbit: (received * 8) / ms };
  }
  if (op === 'udp') {
    const burst = randomBytes(8);
    const udp = createSocket(host.includes(':') ? 'udp6' : 'udp4');
    for (let sent = 0; sent < count; sent += 5) {
      for (let i = sent; i < Math.min(count, sent + 5); i += 1) {
        const datagram = Buffer.alloc(100);
        burst.copy(datagram);
        datagram.writeUInt32BE(i, 8);
        udp.send(datagram, port, host);
      }
      await new Promise((tick) => setTimeout(tick, 5));
    }
    udp.close();
    return { sent: count, burst: burst.toString('hex') };
  }
  throw new Error(`unknown probe operation ${op}`);
}

/** A promise that rejects after `ms`, so no request outlives its bound. */
function deadline(ms) {
  return new Promise((_, reject) => {
    setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms).unref();
  });
}

if (role === 'agent') {
  serve(Number(args[0]), Number(args[1]));
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const { id, op, host, port, count, burst, timeoutMs } = JSON.parse(line);
    Promise.race([client(host, port, op, count, burst), deadline(timeoutMs)]).then(
      (result) => console.log(JSON.stringify({ id, ...result })),
      (error) => console.log(JSON.stringify({ id, error: String(error?.message ?? error) })),
    );
  });
} else {
  console.error('usage: probe.mjs agent PORT MAX_SECONDS');
  process.exit(2);
}
