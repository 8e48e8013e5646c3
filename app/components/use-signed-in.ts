import { useRouteLoaderData } from "react-router";
import type { loader } from "#app/root.tsx";

/** Whether the visitor is signed in, from the root loader (false on error pages rendered without it). */
export function useSignedIn(): boolean {
  return useRouteLoaderData<typeof loader>("root")?.signedIn ?? false;
}
