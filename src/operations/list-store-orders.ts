/**
 * @module
 * `GET /store/orders` (listStoreOrders): referred to by the interface but not specified, so it
 * answers 501 saying so, rather than a bare 404.
 */
import type { Operation } from "../operation.ts";
import { operation } from "../operation.ts";
import { COMMON_ANSWERS, errorAnswer, ref } from "../openapi/answers.ts";

const MESSAGE = "Cannot list store orders: GET /store/orders is referred to by the interface but not specified, so this service does not implement it";

/** Answers `GET /store/orders`: 501 not_implemented, after the key check. */
export const listStoreOrders: Operation = operation({
  method: "GET",
  path: "/store/orders",
  operationId: "listStoreOrders",
  summary: "List store orders (not implemented)",
  description: "Referred to by the interface but not specified: always answers 501 not_implemented (after the key check).",
  tags: ["store"],
  action: "Cannot list store orders",
  parameters: {},
  answers: {
    "400": ref("responses", "InvalidHost"),
    ...COMMON_ANSWERS,
    "501": errorAnswer("Not implemented (`code` not_implemented).", { not_implemented: MESSAGE }),
  },

  async handler(context) {
    return context.error("not_implemented", MESSAGE);
  },
});
