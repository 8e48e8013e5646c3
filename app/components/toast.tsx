import { useEffect, useState } from "react";
import { useLocation, useRouteLoaderData } from "react-router";
import { toastTexts } from "#app/lib/messages.ts";
import type { loader } from "#app/root.tsx";

/** Spec: "You are signed in" / "You are signed out", hidden after 3000 ms. */
export const toastMilliseconds = 3000;

export function Toast() {
  const kind = useRouteLoaderData<typeof loader>("root")?.toast ?? null;
  const { key } = useLocation();
  // The page whose toast the timer has hidden; the next page with a toast shows it again.
  const [hiddenOn, setHiddenOn] = useState<string | null>(null);
  useEffect(() => {
    if (!kind) return;
    const timer = setTimeout(() => setHiddenOn(key), toastMilliseconds);
    return () => clearTimeout(timer);
  }, [kind, key]);
  const visible = kind !== null && hiddenOn !== key;
  return (
    <div className="toast-region" role="status" aria-live="polite">
      {visible ? <p className="toast">{toastTexts[kind]}</p> : null}
    </div>
  );
}
