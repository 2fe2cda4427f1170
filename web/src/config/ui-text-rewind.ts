/**
 * The live player's rewind strings (docs/product.md#rewind), apart from `uiText` so that they load
 * with the rewind (a chunk of its own, fetched once the live picture plays), not with the app's
 * first load (its JS budget, decision 0060). Held to docs/product.md by ui-text.test.ts.
 */
export const rewindText = {
  controls: 'Rewind',
  rewind: 'Rewind 30 seconds',
  nothingRecorded: 'Nothing of {streamId} is recorded yet, so there is nothing to rewind to.',
  ivsDelay: 'Recordings on Amazon IVS trail live by about {seconds} s',
  goLive: 'Go live',
  live: 'Live',
  behind: '{time} behind live',
  scrubber: 'The last hour of {streamId}',
  scrubberValue: '{time} UTC, {behind} behind live',
  video: 'Recording of {streamId}, {behind} behind live',
  failed: 'The recording could not be played. Go live to watch the live picture.',
  wentLive: 'Live',
  wentBack: 'Rewound: {behind} behind live',
} as const;
