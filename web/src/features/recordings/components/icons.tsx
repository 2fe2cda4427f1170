/**
 * The recordings feature's icons (the Recordings page's, the live rewind's), drawn here rather than taken from lucide-react: a lazy chunk that
 * imports both React and a lucide icon makes the build put React in a chunk of its own, which the
 * first load then fetches too, past its budget (decision 0060).
 * Decorative (`aria-hidden`): each button says what it does in its label.
 */
const common = {
  'aria-hidden': true,
  viewBox: '0 0 24 24',
  fill: 'none',
  stroke: 'currentColor',
  strokeWidth: 2,
  strokeLinecap: 'round',
  strokeLinejoin: 'round',
  className: 'size-4 text-sky-400',
} as const;

export function PlayIcon() {
  return (
    <svg {...common}>
      <path d="M6 4l14 8-14 8z" />
    </svg>
  );
}

export function DownloadIcon() {
  return (
    <svg {...common}>
      <path d="M12 4v11M7 10l5 5 5-5M5 20h14" />
    </svg>
  );
}

export function LiveIcon() {
  return (
    <svg {...common} className="size-4 text-red-400">
      <circle cx="12" cy="12" r="3" fill="currentColor" />
      <path d="M7.8 16.2a6 6 0 0 1 0-8.4M16.2 7.8a6 6 0 0 1 0 8.4" />
    </svg>
  );
}

export function BackIcon() {
  return (
    <svg {...common} className="size-4">
      <path d="M19 12H5M12 19l-7-7 7-7" />
    </svg>
  );
}

/** The live player's 'Rewind 30 seconds' (its button's own colour). */
export function RewindIcon() {
  return (
    <svg {...common} className="size-4">
      <path d="M3 12a9 9 0 1 0 3-6.7L3 8" />
      <path d="M3 3v5h5" />
    </svg>
  );
}
