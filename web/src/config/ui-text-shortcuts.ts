/**
 * The 'Keyboard shortcuts' dialog's strings (docs/product.md#keyboard and #rewind), apart from
 * `uiText` so that they load with the dialog (a chunk of its own), not with the app's first load
 * (its JS budget, decision 0060). Held to docs/product.md by ui-text.test.ts.
 */
export const shortcutsText = {
  title: 'Keyboard shortcuts',
  close: 'Close',
  fullscreen: 'Fullscreen',
  pictureInPicture: 'Picture-in-picture',
  stats: 'Live stats',
  help: 'This help',
  flightData: 'Flight data',
  back10: 'Rewind 10 seconds',
  on10: '10 seconds on, or live',
  back5on5: '5 seconds back or on',
  oldest: 'The oldest recorded instant',
  goLive: 'Go live',
  pauseRecording: 'Pause or play the recording (also Space)',
} as const;
