/**
 * @module
 * The ceiling on Deno: `Deno.serve` checking the key and sending precomputed answers.
 */
import { answers, limitResponse } from "../fixtures.ts";

const count = Number(Deno.env.get("PETS") ?? 1000);
let all: ReturnType<typeof answers>;
Deno.serve({
  port: 0,
  hostname: "127.0.0.1",
  onListen: ({ port }) => {
    all = answers(`http://127.0.0.1:${port}/v1`, count);
    console.log(`listening on http://127.0.0.1:${port}/v1`);
  },
}, (request) => limitResponse(request, all));
