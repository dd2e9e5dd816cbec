package io.streamhouse.e2e;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a test class one {@link LocalStack} (real broker + worker, child JVMs, Kafka version from
 * {@code streamhouse.kafka.version}), started before the first test and stopped after the last.
 * Test methods and constructors receive it as a parameter.
 */
public final class LocalStackExtension implements BeforeAllCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(LocalStackExtension.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    stack(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == LocalStack.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return stack(context);
  }

  private static LocalStack stack(ExtensionContext context) {
    Class<?> testClass = context.getRequiredTestClass();
    ExtensionContext classContext = context;
    while (classContext.getParent().isPresent()
        && classContext.getParent().get().getTestClass().isPresent()) {
      classContext = classContext.getParent().get();
    }
    return classContext
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(
            testClass,
            c ->
                new StackResource(
                    E2eSettings.stack(testClass.getSimpleName(), E2eSettings.kafkaVersion())
                        .faultInjection(!testClass.isAnnotationPresent(WithoutFaultInjection.class))
                        .start()),
            StackResource.class)
        .stack;
  }

  /** Closes the stack when JUnit discards the class's store. */
  private record StackResource(LocalStack stack) implements AutoCloseable {
    @Override
    public void close() {
      stack.close();
    }
  }
}
