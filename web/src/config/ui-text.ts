/**
 * Every string the web app shows or has a screen reader speak, in one place. They are
 * requirements: docs/product.md holds each one verbatim, and `ui-text.test.ts` fails when one is
 * missing there, so the UI and the product's rules cannot drift. A new user-visible string goes
 * into docs/product.md and here, never straight into a component.
 *
 * `{name}` marks a value the app fills in (`fillText`).
 */
export const uiText = {
  signIn: {
    documentTitle: 'Sign in · Tailcam',
    title: 'Welcome Back',
    subtitle: 'Sign in to watch live aircraft cameras',
    usernameLabel: 'Username',
    usernamePlaceholder: 'Enter your username',
    passwordLabel: 'Password',
    passwordPlaceholder: 'Enter your password',
    submit: 'Sign In',
    submitting: 'Signing in...',
  },
  header: {
    logo: 'Tailcam',
    homeLink: 'Tailcam home',
    operations: 'Operations',
    logout: 'Logout',
  },
  pages: {
    loading: 'Loading page...',
    loadFailed: 'This page could not be loaded.',
    reload: 'Reload',
  },
  home: {
    documentTitle: 'Available Streams · Tailcam',
    title: 'Available Streams',
    subtitle: 'Select a stream to start watching',
    streamList: 'Streams',
    cardLabel: '{name}: Click to watch stream',
    liveCardLabel: '{name}, live: Click to watch stream',
    cardHint: 'Click to watch stream',
    liveBadge: 'Live',
    thumbnail: '{name} thumbnail',
    placeholderImage: '{name} placeholder image',
    emptyTitle: 'No streams available',
    emptyHint: 'Check back later for available streams',
    watchAll: 'Watch all',
    watchAllLabel: 'Watch all streams at once',
    recordings: 'Recordings',
  },
  watchAll: {
    documentTitle: 'Watch all · Tailcam',
    title: 'Watch all',
    subtitle: 'Every aircraft live at once. Select one to open its player.',
    tileList: 'Live streams',
    tileLabel: '{streamId}: Open player',
  },
  player: {
    documentTitle: '{streamId} · Tailcam',
    /** The title while the route has no stream id, just before the redirect home. */
    documentTitleWithoutStream: 'Player · Tailcam',
    back: 'Back to Selection',
    backShort: 'Back',
    video: 'Live video from {streamId}',
    connecting: 'Connecting to stream...',
    connectingNote: 'This may take a few moments',
    errorTitle: 'Stream Unavailable',
    retry: 'Retry Connection',
    waitingForVideo: 'Waiting for video from {streamId}',
    waitingForVideoNote: 'Connected. The picture appears as soon as the aircraft sends it.',
    videoPaused: 'Paused: your connection is too slow for video',
    controls: 'Player controls',
    statsButton: 'Live stats',
    helpButton: 'Keyboard shortcuts',
  },
  shortcuts: {
    statsShown: 'Live stats shown',
    statsHidden: 'Live stats hidden',
    fullscreenOn: 'Fullscreen on',
    fullscreenOff: 'Fullscreen off',
    fullscreenUnavailable: 'Fullscreen is not available here',
    pictureInPictureOn: 'Picture-in-picture on',
    pictureInPictureOff: 'Picture-in-picture off',
    pictureInPictureUnavailable: 'Picture-in-picture is not available here',
  },
  layers: {
    label: 'Quality',
    auto: 'Auto',
    autoShowing: 'Auto ({layer})',
    layer: '{height}p',
    announced: 'Quality: {choice}',
  },
  quality: {
    label: 'Connection quality: {quality}',
    labelBehind: 'Live connection quality: {quality}',
    shortBehind: 'Live: {quality}',
    good: 'Good',
    fair: 'Fair',
    poor: 'Poor',
  },
  errors: {
    loginFailed: 'Invalid credentials',
    loginRateLimited: 'Too many sign-in attempts; try again in a moment',
    noAuthToken: 'Authentication token not found. Please log in again.',
    tokenFetchFailed: 'Failed to fetch participant token',
    unknown: 'An unknown error occurred',
    sdkNotLoaded:
      'The broadcast SDK is not loaded. Please check your connection and reload the page.',
    unknownStageError: 'An unknown stage error occurred.',
    webRtcMissing:
      'This browser cannot play live video: it has no WebRTC. Open Tailcam in a current Chrome, Edge, Firefox or Safari.',
    autoplayBlocked: 'Browser blocked autoplay. Please click the video to play.',
    connectionLost: 'Connection lost. Reconnecting...',
    joinTimedOut: 'The stream did not answer in time.',
  },
} as const;

/** The `{placeholder}` names of a text, e.g. `'streamId'` for `'Live video from {streamId}'`. */
type Placeholders<Text extends string> = Text extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;

/** A text of `uiText` with its placeholders filled in: `fillText(uiText.player.video, { streamId })`. */
export function fillText<Text extends string>(
  text: Text,
  values: Record<Placeholders<Text>, string>,
): string {
  let filled: string = text;
  for (const [name, value] of Object.entries<string>(values)) {
    filled = filled.replaceAll(`{${name}}`, value);
  }
  return filled;
}
