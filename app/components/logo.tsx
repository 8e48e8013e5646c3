/**
 * Candor's mark, drawn here: a speech bubble holding three rising bars, an honest word that adds up to a rating.
 * Decorative beside the wordmark, which names the site.
 */
export function LogoMark({ size = 32 }: { size?: number }) {
  return (
    <svg className="logo-mark" width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <path d="M6 3h20a4 4 0 0 1 4 4v14a4 4 0 0 1-4 4H14l-6.5 5v-5H6a4 4 0 0 1-4-4V7a4 4 0 0 1 4-4z" fill="#fff" />
      <rect x="8.5" y="14" width="3.5" height="6" rx="1" fill="#1f4e79" />
      <rect x="14.25" y="10.5" width="3.5" height="9.5" rx="1" fill="#1f4e79" />
      <rect x="20" y="7" width="3.5" height="13" rx="1" fill="#0f7b5f" />
    </svg>
  );
}
