/**
 * Candor's mark, drawn here: a speech bubble holding three rising bars, an honest word that adds up to a rating.
 * Decorative where a name stands beside it.
 */
export function LogoMark({ size = 32 }: { size?: number }) {
  return (
    <svg className="logo-mark" width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <MarkShapes />
    </svg>
  );
}

function MarkShapes() {
  return (
    <>
      <path d="M6 3h20a4 4 0 0 1 4 4v14a4 4 0 0 1-4 4H14l-6.5 5v-5H6a4 4 0 0 1-4-4V7a4 4 0 0 1 4-4z" fill="#fff" />
      <rect x="8.5" y="14" width="3.5" height="6" rx="1" fill="#1f4e79" />
      <rect x="14.25" y="10.5" width="3.5" height="9.5" rx="1" fill="#1f4e79" />
      <rect x="20" y="7" width="3.5" height="13" rx="1" fill="#0f7b5f" />
    </>
  );
}

/**
 * The logo: the mark and the wordmark "candor", drawn here as strokes of one width on circles of one radius (the
 * letters' bowls and arches), so the name needs no font. The letters take the text colour (`currentColor`), so the
 * logo follows the header in light and dark schemes; its accessible name is the site's name.
 */
export function Logo({ name }: { name: string }) {
  return (
    <svg className="logo" width="140" height="32" viewBox="0 0 140 32" role="img" aria-label={name} focusable="false">
      <MarkShapes />
      <g
        transform="translate(40 4)"
        fill="none"
        stroke="currentColor"
        strokeWidth="3.2"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        {/* c */}
        <path d="M12.6 13.1A6 6 0 1 0 12.6 20.9" />
        {/* a */}
        <circle cx="24" cy="17" r="6" />
        <path d="M30 11v12" />
        {/* n */}
        <path d="M36 23V11m0 6a6 6 0 0 1 12 0v6" />
        {/* d */}
        <circle cx="60" cy="17" r="6" />
        <path d="M66 2v21" />
        {/* o */}
        <circle cx="78" cy="17" r="6" />
        {/* r */}
        <path d="M90 23V11m0 6a6 6 0 0 1 6-6" />
      </g>
    </svg>
  );
}
