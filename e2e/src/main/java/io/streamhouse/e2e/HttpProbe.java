package io.streamhouse.e2e;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** Whether a server started by the harness answers yet. */
final class HttpProbe {
  private HttpProbe() {}

  /** True when {@code request} gets a 200; false while the server refuses or is not up. */
  static boolean answersOk(HttpRequest request) {
    try {
      return HttpClient.newHttpClient()
              .send(request, HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
