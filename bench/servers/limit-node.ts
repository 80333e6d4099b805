/**
 * @module
 * The ceiling on Node: `node:http` checking the key and writing precomputed answers.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { answerFor, answers, KEY } from "../fixtures.ts";

const count = Number(process.env.PETS ?? 1000);
let all: ReturnType<typeof answers>;
const server = createServer((request, response) => {
  const respond = () => {
    if (request.headers.authorization !== `Bearer ${KEY}`) return response.writeHead(401).end();
    const answer = answerFor(request.method ?? "GET", request.url ?? "/", all);
    if (answer === undefined) return response.writeHead(404).end();
    response.writeHead(answer.status, { ...answer.headers, "content-length": Buffer.byteLength(answer.body) }).end(answer.body);
  };
  if (request.method === "POST") request.on("data", () => {}).on("end", respond);
  else respond();
});
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  all = answers(`http://127.0.0.1:${port}/v1`, count);
  console.log(`listening on http://127.0.0.1:${port}/v1`);
});
