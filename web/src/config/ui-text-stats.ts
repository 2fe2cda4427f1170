/**
 * The live stats panel's strings (docs/product.md#live-stats), apart from `uiText` so that they
 * load with the panel (a chunk of its own), not with the app's first load (its JS budget,
 * decision 0060). Held to docs/product.md by ui-text.test.ts like the others.
 */
export const statsText = {
  title: 'Live stats',
  behindNote: 'Of the live connection, joined under the recording you are watching',
  resolution: 'Resolution',
  frameRate: 'Frame rate',
  bitrate: 'Bitrate',
  packetLoss: 'Packet loss',
  jitter: 'Jitter',
  roundTrip: 'Round trip',
  jitterBuffer: 'Jitter buffer',
  decodeTime: 'Decode time',
  codec: 'Codec',
  latency: 'Glass to glass',
  latencyEstimate: 'Glass to glass (estimate)',
  resolutionValue: '{width} × {height}',
  frameRateValue: '{decoded} decoded, {shown} shown',
  bitrateValue: '{value} kbit/s',
  millisecondsValue: '{value} ms',
  percentValue: '{value} %',
  noValue: '–',
  layer: 'Layer',
  layerValue: '{width} × {height} ({label}), {mode}',
  layerAuto: 'auto',
  layerChosen: 'chosen',
  estimate: 'Estimate',
  estimateValue: '{value} Mbit/s',
};
