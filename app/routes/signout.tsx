import { redirect } from "react-router";
import type { Route } from "./+types/signout.ts";
import { signOut } from "#app/domain/accounts.server.ts";
import { auth } from "#app/domain/auth.server.ts";
import { paths } from "#app/lib/paths.ts";
import { setToast } from "#app/http/session.server.ts";
import { clearVoteKeyCookie } from "#app/http/vote-key.server.ts";

/** Signing out changes state, so it is a POST (the header's form); a GET only leads home. */
export function loader() {
  return redirect(paths.home());
}

export async function action({ request }: Route.ActionArgs) {
  const headers = clearVoteKeyCookie(await signOut(auth(), request.headers));
  return redirect(paths.home(), { headers: setToast(headers, "signed-out") });
}
