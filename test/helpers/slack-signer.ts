// Promoted to functions/src/local/ (the demo uses it); kept here for the tests that import it.
export * from "../../functions/src/local/slack-signer.js";
