package io.streamhouse.connect.commit.wire;

import io.streamhouse.connect.config.ConfigValidators;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 of control events under the connector's key, which only its tasks hold (derived by
 * the connector from its configuration and handed to the tasks in their configs, or set by the
 * user). An event whose MAC does not match was not sent by a task of this connector and is refused
 * before any of its fields is read.
 */
public final class ControlEventSigner {
  static final int MAC_BYTES = 32;

  /** Keys shorter than this are refused: an HMAC key should carry at least 128 bits. */
  public static final int MIN_KEY_CHARS = ConfigValidators.MIN_SIGNING_KEY_CHARS;

  private static final String ALGORITHM = "HmacSHA256";

  private final SecretKeySpec key;

  public ControlEventSigner(String secret) {
    if (secret == null || secret.length() < MIN_KEY_CHARS) {
      throw new IllegalArgumentException(
          "A control-event signing key needs at least " + MIN_KEY_CHARS + " characters");
    }
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM);
  }

  /**
   * The key the connector hands its tasks when the user set none: SHA-256 over the connector's
   * whole configuration (every key and value, secrets included, in key order), base64url. Every
   * instance of the connector, on any worker, derives the same key from the same configuration, so
   * a restart or a move to another worker leaves the task configurations as they were and Connect
   * does not restart the tasks a second time; a changed configuration gives a new key.
   */
  public static String derivedKey(Map<String, String> config) {
    MessageDigest digest = sha256();
    digest.update("streamhouse-control-signing-key-v1".getBytes(StandardCharsets.UTF_8));
    new TreeMap<>(config)
        .forEach(
            (name, value) -> {
              updateWithLength(digest, name);
              updateWithLength(digest, value == null ? "" : value);
            });
    return Base64.getUrlEncoder().withoutPadding().encodeToString(digest.digest());
  }

  /** Length-prefixed, so that no two different configurations feed the digest the same bytes. */
  private static void updateWithLength(MessageDigest digest, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    digest.update(ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
    digest.update(bytes);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is not available in this JVM", e);
    }
  }

  /** The MAC of {@code data[0, length)}. */
  byte[] sign(byte[] data, int length) {
    Mac mac = newMac();
    mac.update(data, 0, length);
    return mac.doFinal();
  }

  /**
   * Whether the last {@link #MAC_BYTES} of {@code data} are the MAC of the bytes before them
   * (constant time).
   */
  boolean verify(byte[] data) {
    if (data.length < MAC_BYTES) {
      return false;
    }
    int signed = data.length - MAC_BYTES;
    byte[] expected = sign(data, signed);
    byte[] actual = Arrays.copyOfRange(data, signed, data.length);
    return MessageDigest.isEqual(expected, actual);
  }

  private Mac newMac() {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("This JVM has no " + ALGORITHM, e);
    }
  }
}
