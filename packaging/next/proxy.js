// A middleware of the app's own beside the API: a cookie for the user each request names, added
// to whatever answers it. It must reach that user's answer only.
import { NextResponse } from "next/server";

export function proxy(request) {
  const response = NextResponse.next();
  response.headers.append("set-cookie", `session=${request.headers.get("x-user")}; HttpOnly`);
  return response;
}
