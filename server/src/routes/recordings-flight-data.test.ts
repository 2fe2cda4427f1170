/**
 * A segment's flight data in the recordings API (decision 0096):
 * `GET /api/recordings/{aircraft}/{span}/{offset}.flight` serves the recorder's file as it is now
 * (binary records, never cached: it grows with its segment), with the login token only; a bad
 * name is a 400 saying what a name is, and a segment without data a 404 that names no path.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  encodeFlightRecord,
  FLIGHT_FILE_MAGIC,
  readFlightRecords,
} from '@tailcam/protocol/flight-data/recorded';
import { flightDataAt } from '@tailcam/protocol/flight-data/flight';
import { flightFileName, spanName } from '@tailcam/protocol/recordings';
import { build, tempDir } from '../test/helpers';

const T0 = Date.UTC(2026, 10, 29, 13, 30, 0);
const SPAN = spanName(T0);
const UUID = new Uint8Array(16).fill(0x9e);

async function signedIn() {
  const root = tempDir('tailcam-recordings-flight-');
  const dir = join(root, 'N953AS', SPAN);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'span.json'),
    JSON.stringify({ container: 'webm', codecs: 'vp8', publisher: 'camera' }),
  );
  const test = await build({ config: { recordingsDir: root } });
  await test.addUser('alice', 'correct horse');
  const token = await test.login('alice', 'correct horse');
  const get = (url: string, bearer: string | null = token) =>
    test.app.inject({
      method: 'GET',
      url,
      headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` },
    });
  return { get, dir, root };
}

describe("a segment's flight data", () => {
  it('is served as it is now, private and never cached, and again with what came since', async () => {
    const { get, dir } = await signedIn();
    const path = join(dir, flightFileName(4000));
    const first = flightDataAt('N953AS', T0 + 4000);
    writeFileSync(
      path,
      Buffer.concat([
        FLIGHT_FILE_MAGIC,
        encodeFlightRecord({ timeMs: 0, uuid: UUID, payload: first }),
      ]),
    );
    const url = `/api/recordings/N953AS/${SPAN}/0000004000.flight`;
    const response = await get(url);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect(response.headers['cache-control']).toBe('private, no-store');
    expect(readFlightRecords(new Uint8Array(response.rawPayload))).toEqual([
      { timeMs: 0, uuid: UUID, payload: first },
    ]);
    // The recorder appends a sample a second later: the next read has both.
    const second = flightDataAt('N953AS', T0 + 5000);
    appendFileSync(path, encodeFlightRecord({ timeMs: 1000, uuid: UUID, payload: second }));
    const again = readFlightRecords(new Uint8Array((await get(url)).rawPayload));
    expect(again.map((record) => record.timeMs)).toEqual([0, 1000]);
  });

  it('is refused without a valid login token', async () => {
    const { get, dir } = await signedIn();
    writeFileSync(join(dir, flightFileName(0)), FLIGHT_FILE_MAGIC);
    const url = `/api/recordings/N953AS/${SPAN}/0000000000.flight`;
    expect((await get(url, null)).statusCode).toBe(401);
    expect((await get(url, 'not-a-token')).statusCode).toBe(401);
  });

  it('answers 400 for a bad name, and 404 without a path where a segment has none', async () => {
    const { get, root } = await signedIn();
    for (const name of ['0.flight', '00000000000.flight', '..%2F0000000000.flight', 'a.flight']) {
      const response = await get(`/api/recordings/N953AS/${SPAN}/${name}`);
      expect({ name, status: response.statusCode }).toEqual({ name, status: 400 });
    }
    const bad = await get(`/api/recordings/N953AS/${SPAN}/0.flight`);
    expect(bad.json().error).toContain('its flight data {offset}.flight');
    for (const url of [
      `/api/recordings/N953AS/${SPAN}/0000008000.flight`,
      `/api/recordings/N953AS/${spanName(T0 + 60_000)}/0000000000.flight`,
    ]) {
      const absent = await get(url);
      expect(absent.statusCode).toBe(404);
      expect(absent.json().error).toBe(
        'No flight data for this segment (none was sent, or it expired)',
      );
      expect(absent.body).not.toContain(root);
    }
  });
});
