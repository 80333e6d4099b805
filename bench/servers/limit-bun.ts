/**
 * @module
 * The ceiling on Bun: `Bun.serve` checking the key and sending precomputed answers.
 */
import { answerFor, answers, KEY } from "../fixtures.ts";

const count = Number(process.env.PETS ?? 1000);
let all: ReturnType<typeof answers>;
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    if (request.headers.get("authorization") !== `Bearer ${KEY}`) return new Response(null, { status: 401 });
    const url = request.url;
    const answer = answerFor(request.method, url.slice(url.indexOf("/", 8)), all);
    if (answer === undefined) return new Response(null, { status: 404 });
    if (request.method === "POST") await request.text();
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  },
});
all = answers(`http://127.0.0.1:${server.port}/v1`, count);
console.log(`listening on http://127.0.0.1:${server.port}/v1`);
