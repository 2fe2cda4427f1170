import type { RTCDtlsTransport } from 'werift';
import { describe, expect, it } from 'vitest';
import { connectOnNomination } from './ice-nomination';

/**
 * The parts of werift's ICE connection that connectOnNomination touches: `connect()` runs the
 * check loop (here: a promise the test settles, as the loop's next tick would), `checkComplete`
 * is called as each check ends, and a nominated pair sets `nominated`.
 */
function fakeConnection(iceLite = false) {
  const calls: string[] = [];
  let endLoop: () => void = () => undefined;
  let failLoop: (error: Error) => void = () => undefined;
  const connection = {
    iceLite,
    state: 'checking',
    nominated: undefined as object | undefined,
    connect: () =>
      new Promise<void>((resolve, reject) => {
        endLoop = () => {
          connection.queryConsent();
          connection.setState('connected');
          resolve();
        };
        failLoop = reject;
      }),
    checkComplete: (pair: string) => calls.push(`checkComplete ${pair}`),
    queryConsent: () => calls.push('queryConsent'),
    setState: (state: string) => {
      connection.state = state;
      calls.push(`state ${state}`);
    },
  };
  const transport = { iceTransport: { connection } } as unknown as RTCDtlsTransport;
  return {
    connection,
    transport,
    calls,
    endLoop: () => endLoop(),
    failLoop: (e: Error) => failLoop(e),
  };
}

describe('connectOnNomination', () => {
  it('reports the connection up when the nominated pair succeeds, not at the loop’s next tick', async () => {
    const { connection, transport, calls, endLoop } = fakeConnection();
    connectOnNomination(transport);
    let connected = false;
    const connecting = connection.connect().then(() => (connected = true));

    connection.checkComplete('pair-a'); // a check that nominated nothing
    await Promise.resolve();
    expect(connected).toBe(false);

    connection.nominated = {};
    connection.checkComplete('pair-b');
    await connecting;
    expect(connected).toBe(true);
    expect(calls).toEqual([
      'checkComplete pair-a',
      'checkComplete pair-b',
      'queryConsent',
      'state connected',
    ]);

    // The loop ends by itself later and repeats both; later checks are werift's alone again.
    endLoop();
    connection.checkComplete('pair-c');
    expect(calls.slice(4)).toEqual(['queryConsent', 'state connected', 'checkComplete pair-c']);
  });

  it('passes on a failure before any nomination', async () => {
    const { connection, transport, failLoop } = fakeConnection();
    connectOnNomination(transport);
    const connecting = connection.connect();
    failLoop(new Error('ICE negotiation failed'));
    await expect(connecting).rejects.toThrow('ICE negotiation failed');
  });

  it('says nothing for a connection closed before its nomination came', async () => {
    const { connection, transport, calls, endLoop } = fakeConnection();
    connectOnNomination(transport);
    const connecting = connection.connect();
    connection.state = 'closed';
    connection.nominated = {};
    connection.checkComplete('pair-a');
    endLoop();
    await connecting;
    expect(calls).toEqual(['checkComplete pair-a', 'queryConsent', 'state connected']);
  });

  it('leaves an ICE lite connection as it is', () => {
    const { connection, transport } = fakeConnection(true);
    const connect = connection.connect;
    connectOnNomination(transport);
    expect(connection.connect).toBe(connect);
  });
});
