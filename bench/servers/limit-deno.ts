/**
 * @module
 * The ceiling on Deno: `Deno.serve` checking the key and sending precomputed answers.
 */
import { answerFor, answers, KEY } from "../fixtures.ts";

const count = Number(Deno.env.get("PETS") ?? 1000);
let all: ReturnType<typeof answers>;
Deno.serve({
  port: 0,
  hostname: "127.0.0.1",
  onListen: ({ port }) => {
    all = answers(`http://127.0.0.1:${port}/v1`, count);
    console.log(`listening on http://127.0.0.1:${port}/v1`);
  },
}, async (request) => {
  if (request.headers.get("authorization") !== `Bearer ${KEY}`) return new Response(null, { status: 401 });
  const url = request.url;
  const answer = answerFor(request.method, url.slice(url.indexOf("/", 8)), all);
  if (answer === undefined) return new Response(null, { status: 404 });
  if (request.method === "POST") await request.text();
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
});
