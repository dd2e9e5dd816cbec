package io.streamhouse.connect.table.paimon;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.paimon.io.DataInputDeserializer;
import org.apache.paimon.io.DataOutputSerializer;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageSerializer;

/**
 * Paimon commit messages as control-topic payload. The payload version is Paimon's own serializer
 * version, sent with the bytes: a coordinator reads what an older task wrote, and a newer payload
 * than it knows fails loudly instead of being misread.
 */
final class CommitMessagesCodec {
  static final int VERSION = new CommitMessageSerializer().getVersion();

  /** A message of any version holds at least a partition length, a bucket and six list lengths. */
  private static final int MIN_MESSAGE_BYTES = 4 + 4 + 6 * 4;

  private CommitMessagesCodec() {}

  static byte[] encode(List<CommitMessage> messages) {
    DataOutputSerializer out = new DataOutputSerializer(1024);
    try {
      new CommitMessageSerializer().serializeList(messages, out);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot serialize Paimon commit messages", e);
    }
    return out.getCopyOfBuffer();
  }

  /**
   * The messages of {@code payload}.
   *
   * @throws InvalidCommitMessagesException for a payload Paimon's serializer cannot read. Its list
   *     reader sizes a list from a length field before reading the elements; a corrupt length asks
   *     for an array larger than the heap, which the JVM refuses on the spot without allocating it,
   *     and that refusal is turned into a rejection here too.
   */
  static List<CommitMessage> decode(int version, byte[] payload)
      throws InvalidCommitMessagesException {
    if (version > VERSION || version < 1) {
      throw new InvalidCommitMessagesException(
          "Paimon commit messages of serializer version "
              + version
              + " cannot be read by this plugin (it reads up to "
              + VERSION
              + "): upgrade the plugin on every worker");
    }
    if (payload.length < 4
        || readInt(payload) < 0
        || readInt(payload) > payload.length / MIN_MESSAGE_BYTES) {
      throw new InvalidCommitMessagesException(
          "the message count does not fit the " + payload.length + " bytes of the payload");
    }
    try {
      DataInputDeserializer in = new DataInputDeserializer(payload);
      List<CommitMessage> messages = new CommitMessageSerializer().deserializeList(version, in);
      if (in.available() != 0) {
        throw new InvalidCommitMessagesException(
            in.available() + " bytes are left after the commit messages");
      }
      return messages;
    } catch (IOException | RuntimeException e) {
      throw new InvalidCommitMessagesException(
          "not Paimon commit messages of version " + version + ": " + e);
    } catch (OutOfMemoryError corruptLength) {
      throw new InvalidCommitMessagesException(
          "a length field asks for more memory than there is: " + corruptLength);
    }
  }

  private static int readInt(byte[] b) {
    return ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
  }

  /** Commit messages that cannot be read. */
  static final class InvalidCommitMessagesException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidCommitMessagesException(String message) {
      super(message, null, false, false);
    }
  }
}
