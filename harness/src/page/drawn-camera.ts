/**
 * A camera the page draws itself (drawn-picture.ts says why): a canvas of one colour with a bar
 * that moves every frame, at 30 frames a second, and a quiet tone for the audio track a camera
 * also sends. Standard APIs only (canvas.captureStream, Web Audio), so it publishes alike from
 * any browser, with no fake-device flags.
 */
import { DRAWN_PICTURE_COLOUR } from '../drawn-picture';

export function drawnCamera(size: { width: number; height: number }): MediaStream {
  const canvas = document.createElement('canvas');
  canvas.width = size.width;
  canvas.height = size.height;
  const context = canvas.getContext('2d');
  if (!context) throw new Error('no 2d context');
  const [red, green, blue] = DRAWN_PICTURE_COLOUR;
  const bar = Math.max(2, Math.round(size.width / 16));
  let frame = 0;
  const draw = () => {
    frame += 1;
    context.fillStyle = `rgb(${red}, ${green}, ${blue})`;
    context.fillRect(0, 0, size.width, size.height);
    context.fillStyle = '#f0f0f0';
    context.fillRect((frame * 8) % (size.width - bar), 0, bar, size.height);
  };
  draw();
  setInterval(draw, 1000 / 30);
  const [video] = canvas.captureStream(30).getVideoTracks();
  if (!video) throw new Error('no canvas track');

  const audio = new AudioContext();
  const tone = audio.createOscillator();
  const quiet = audio.createGain();
  quiet.gain.value = 0.05;
  const destination = audio.createMediaStreamDestination();
  tone.connect(quiet).connect(destination);
  tone.start();
  return new MediaStream([video, ...destination.stream.getAudioTracks()]);
}
