/**
 * The Recordings page's strings (docs/product.md#recordings), apart from `uiText` so that they
 * load with the page, not with the app's first load (its JS budget, decision 0060). Held to
 * docs/product.md by ui-text.test.ts like the others.
 */
export const recordingsText = {
  documentTitle: 'Recordings · Tailcam',
  title: 'Recordings',
  subtitle: 'What the cameras recorded, by time of day (UTC)',
  loading: 'Loading recordings...',
  loadFailed: 'The recordings could not be loaded.',
  none: 'Nothing has been recorded yet.',
  noneForAircraft: 'No recordings',
  span: '{start}–{end} UTC',
  play: 'Play {start}–{end} UTC',
  download: 'Download {start}–{end} UTC',
  downloadFailed: 'The download failed.',
  downloadPreparing: 'Preparing the download... {size} MB',
  downloadBusy: 'Too many downloads at once. Try again in {seconds} seconds.',
  player: 'Recording of {streamId} from {start} UTC',
  playFailed: 'This recording cannot be played in this browser.',
  live: 'Jump to live',
} as const;
