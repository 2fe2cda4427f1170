import { useLiveThumbnail } from '../hooks/use-live-thumbnail';
import { StreamThumbnail } from './stream-thumbnail';

/**
 * The card's picture, fetched after the first paint (a chunk of its own: /home's first paint and
 * the initial JS carry none of it); the stream's own thumbnail or the placeholder meanwhile.
 */
export function LiveThumbnail({
  streamId,
  name,
  thumbnailUrl,
}: {
  streamId: string;
  name: string;
  thumbnailUrl?: string;
}) {
  const liveThumbnail = useLiveThumbnail(streamId);
  return <StreamThumbnail name={name} thumbnailUrl={liveThumbnail ?? thumbnailUrl} />;
}
