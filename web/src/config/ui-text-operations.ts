/**
 * The Operations page's strings (docs/product.md#operations), and what the player's 'Waiting for
 * video' adds from the same call: apart from `uiText` so that they load with that page and that
 * part of the player, not with the app's first load (decision 0060). Held to docs/product.md by
 * ui-text.test.ts like the others.
 */
export const operationsText = {
  documentTitle: 'Operations · Tailcam',
  title: 'Operations',
  subtitle: 'Every aircraft on air or off, as it changes',
  loading: 'Loading operations...',
  loadFailed: 'The operations could not be loaded.',
  signedOut: 'The API refused the login token: sign in again to see the operations.',
  retry: 'Try again',
  retrying: 'Not up to date: the last update failed. Trying again shortly.',
  unavailable:
    'Operations are shown with the local stage only. With Amazon IVS, see its CloudWatch metrics and EventBridge events.',
  aircraftCaption: 'Aircraft now',
  columns: {
    aircraft: 'Aircraft',
    state: 'State',
    since: 'Since',
    bitrate: 'Bitrate',
    viewers: 'Viewers',
  },
  onAir: 'On air',
  offAir: 'Off air',
  unknownSince: 'Not known',
  sinceFor: 'for {duration}',
  noFigure: '–',
  noAircraft: 'No aircraft to show.',
  events: 'Last events',
  noEvents: 'No events yet.',
  announcedOnAir: '{aircraft} is on air',
  announcedOffAir: '{aircraft} is off air',
  duration: {
    seconds: '{seconds} s',
    minutes: '{minutes} min',
    hours: '{hours} h {minutes} min',
    days: '{days} d {hours} h',
  },
  bitrate: {
    mbps: '{value} Mbit/s',
    kbps: '{value} kbit/s',
  },
  /** Under the player's 'Waiting for video from {streamId}'. */
  offAirSince: 'Off air since {time}',
  /** After it, renewed as time passes; not said again to screen readers. */
  offAirFor: '(for {duration})',
} as const;
