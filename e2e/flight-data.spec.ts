/**
 * Flight data in the picture (docs/flight-data.md, decision 0094), in Chromium, on the shared
 * product: the synthetic camera's flight, as MISB ST 0601 packets the stage carries with its
 * frames, reaches the local SDK's `STAGE_STREAM_SEI_MESSAGE_RECEIVED` as IVS's `{ uuid, payload }`,
 * and each packet is where the aircraft was at the instant it names.
 */
import {
  expectTrueFlightData,
  readInBandMessagesInPage,
  type InBandMessagesRead,
} from './support/flight-data';
import { signInByApi, test } from './support/fixtures';

const STAGE = 'N953AS';

test('the SDK hands the camera’s flight data over as IVS’s in-band messages, each true to its instant', async ({
  page,
}) => {
  await signInByApi(page);
  await page.goto('/home');
  const received: InBandMessagesRead = await page.evaluate(readInBandMessagesInPage, {
    stageId: STAGE,
    wanted: 4,
  });
  expectTrueFlightData(STAGE, received);
});
