/**
 * hls.js ships no types for its light build (`hls.js/light`: no subtitles, alternate audio, DRM
 * or CMCD, none of which IVS's recordings use); its API is the full build's.
 */
declare module 'hls.js/light' {
  export { default } from 'hls.js';
  export * from 'hls.js';
}
