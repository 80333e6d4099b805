import { createApp, createMemoryStore } from "animal-store";

let pets;
export default {
  // The keys come from the Worker's environment (a secret, `API_KEYS=key1,key2`).
  fetch(request, env) {
    pets ??= createApp({ store: createMemoryStore(), apiKeys: env.API_KEYS.split(",") });
    return pets.fetch(request);
  },
};
