// What a promise rejected with; fails the test if it fulfilled.
import assert from "node:assert/strict";

export async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail("expected a rejection");
}
