import { useEffect, useState } from "react";
import { useNavigation } from "react-router";

/** A full-screen spinner while a navigation takes longer than a moment (the spec's loading state). */
export function GlobalSpinner() {
  const navigation = useNavigation();
  const pending = navigation.state === "idle" ? undefined : navigation.location?.key;
  // Which navigation has been pending long enough to show the spinner.
  const [slow, setSlow] = useState<string>();
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(() => setSlow(pending), 300);
    return () => clearTimeout(timer);
  }, [pending]);
  const visible = pending !== undefined && slow === pending;
  return (
    <div className={visible ? "global-spinner visible" : "global-spinner"} role="status" aria-live="polite">
      {visible ? (
        <>
          <span className="spinner" aria-hidden="true" />
          <span className="visually-hidden">Loading…</span>
        </>
      ) : null}
    </div>
  );
}
