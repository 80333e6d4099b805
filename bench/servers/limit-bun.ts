/**
 * @module
 * The ceiling on Bun: `Bun.serve` checking the key and sending precomputed answers.
 */
import { answers, limitResponse } from "../fixtures.ts";

const count = Number(process.env.PETS ?? 1000);
let all: ReturnType<typeof answers>;
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (request) => limitResponse(request, all),
});
all = answers(`http://127.0.0.1:${server.port}/v1`, count);
console.log(`listening on http://127.0.0.1:${server.port}/v1`);
