/**
 * @module
 * Private to the Node adapter: a `Request` of a method the Fetch API forbids (`TRACE`, and `CONNECT`
 * and `TRACK` where a parser lets them through), which Node's and Deno's `Request` refuse to be made
 * with although `node:http` hands such requests to its listener. The lazy request's `clone()` gives
 * one, and so does `toNodeListener` for the request it hands its handler, so a wrap that clones every
 * request, or a host that mounts the bridge, gets a `TRACE` as on Bun (whose `Request` takes any method),
 * and the app answers it 405 there as everywhere.
 */

/** The methods the Fetch API makes no `Request` with. */
const FORBIDDEN_METHOD = /^(?:CONNECT|TRACE|TRACK)$/i;

/** A real `Request` of `url` and `init`, also when its method is one the Fetch API forbids. */
export function requestOfAnyMethod(url: string, init: RequestInit): Request {
  const method = init.method ?? "GET";
  return FORBIDDEN_METHOD.test(method) ? new ForbiddenMethodRequest(method, url, init) : new Request(url, init);
}

/**
 * A real `Request` made with a stand-in method, `X-` and the method (a token no server acts on, where
 * `GET` or `POST` would be acted on), whose `method` is the method itself. The stand-in shows only where
 * the runtime reads its own copy of the request: `new Request(request)` and `fetch(request)`, which
 * could not send the method anyway.
 */
class ForbiddenMethodRequest extends Request {
  // An own property over the getter of `Request.prototype`, which gives the stand-in.
  override readonly method: string;

  constructor(method: string, url: string, init: RequestInit) {
    super(url, { ...init, method: `X-${method}` });
    this.method = method;
  }

  /** A copy of the same method, with a body of its own (this one's stays readable). */
  override clone(): Request {
    const copy = super.clone();
    const init: RequestInit & { duplex: "half" } = { headers: copy.headers, signal: copy.signal, body: copy.body, duplex: "half" };
    return new ForbiddenMethodRequest(this.method, copy.url, init);
  }
}

// `util.inspect` and `Deno.inspect` name an object by its constructor: this one shows as the `Request` it is.
ForbiddenMethodRequest.prototype.constructor = Request;
