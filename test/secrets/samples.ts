// Credentials in each issuer's format, built at run time so that no scanner
// (GitHub's push protection included) takes this file for a leak.
import { generateKeyPairSync } from "node:crypto";

const repeat = (s: string, n: number) => s.repeat(Math.ceil(n / s.length)).slice(0, n);
const pem = generateKeyPairSync("rsa", { modulusLength: 1024, privateKeyEncoding: { type: "pkcs8", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } }).privateKey;

export const SAMPLES = {
  github: ["ghp", repeat("A1b2C3d4E5f6G7h8I9j0", 36)].join("_"),
  aws: `aws_secret_access_key = ${["wJalrXUtnFEMI", "K7MDENG", "bPxRfiCYzQ8wLm3nVt"].join("/")}`,
  pem: pem.trim(),
  slack: ["xoxb", "123456789012", "1234567890123", "AbCdEfGhIjKlMnOpQrStUvWx"].join("-"),
  gitlab: ["glpat", "xxXXyyYYzz1234567890"].join("-"),
  stripe: ["sk", "live", "4eC39HqLyjWDarjtT1zdp7dc"].join("_"),
  jwt: ["eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ", "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"].join("."),
  anthropic: ["sk", "ant", "api03", `${repeat("Qw3rTy", 93)}AA`].join("-"),
};
