// A minimal MCP Apps host for tests, run in the browser (bundled by the test with
// vite, nothing fetched from elsewhere): the extension's AppBridge, the app in a
// sandboxed iframe (scripts only, opaque origin), and tools/call forwarded to the
// test's Node side (window.forwardToolCall), where a real MCP client calls the
// real service.
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

window.startHost = async (html, theme) => {
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.title = "Review app";
  document.body.append(frame);
  const bridge = new AppBridge(null, { name: "test-host", version: "1.0.0" }, { serverTools: {} }, { hostContext: { theme, displayMode: "inline" } });
  bridge.oncalltool = (params) => window.forwardToolCall(params);
  bridge.onsizechange = ({ height }) => {
    if (height) frame.style.height = `${height}px`;
  };
  const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
  // Listening before the page loads: the app says ui/initialize as soon as it runs.
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = html;
  await initialized;
  window.bridge = bridge;
};

window.setTheme = (theme) => window.bridge.sendHostContextChange({ theme });
window.sendToolResult = (result) => window.bridge.sendToolResult(result);
