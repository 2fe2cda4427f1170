/**
 * werift's controlling ICE agent nominates in its first successful check (aggressive nomination),
 * but notices it only at the next tick of its check loop, which sleeps 20 ms between ticks while
 * the remote side may still send candidates (a browser's are mDNS names the stage ignores, so it
 * never says it is done). Until that tick the connection is not `connected`, its DTLS transport
 * does not start, and the viewer's ClientHello waits (early-dtls.ts keeps it): 0–20 ms of every
 * join, more when the process waits for a core. This reports the connection up as soon as the
 * nominated pair succeeds, as the loop itself would at its next tick (consent checks start, then
 * `connected`); the loop then ends by itself and repeats both, which changes nothing.
 */
import type { RTCDtlsTransport } from 'werift';

type Connection = RTCDtlsTransport['iceTransport']['connection'];

/** werift's private members this needs, found by name; none of them if werift has changed. */
interface LoopInternals {
  checkComplete: (pair: unknown) => void;
  queryConsent: () => void;
  setState: (state: string) => void;
}

function loopInternals(connection: Connection): LoopInternals | undefined {
  const checkComplete: unknown = Reflect.get(connection, 'checkComplete');
  const queryConsent: unknown = Reflect.get(connection, 'queryConsent');
  const setState: unknown = Reflect.get(connection, 'setState');
  if (
    typeof checkComplete !== 'function' ||
    typeof queryConsent !== 'function' ||
    typeof setState !== 'function'
  ) {
    return undefined;
  }
  return {
    checkComplete: (pair) => Reflect.apply(checkComplete, connection, [pair]),
    queryConsent: () => Reflect.apply(queryConsent, connection, []),
    setState: (state) => Reflect.apply(setState, connection, [state]),
  };
}

export function connectOnNomination(transport: RTCDtlsTransport): void {
  const connection = transport.iceTransport.connection;
  // An ICE lite agent is told of its nomination and has no loop to wait for.
  if (connection.iceLite) return;
  const internals = loopInternals(connection);
  if (!internals) return;
  const connect = connection.connect.bind(connection);
  connection.connect = () =>
    new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = () => {
        settled = true;
        Reflect.set(connection, 'checkComplete', internals.checkComplete);
      };
      Reflect.set(connection, 'checkComplete', (pair: unknown) => {
        internals.checkComplete(pair);
        if (settled || connection.nominated === undefined || connection.state === 'closed') return;
        settle();
        internals.queryConsent();
        internals.setState('connected');
        resolve();
      });
      connect().then(
        () => {
          if (settled) return;
          settle();
          resolve();
        },
        (error: unknown) => {
          if (settled) return;
          settle();
          reject(error);
        },
      );
    });
}
