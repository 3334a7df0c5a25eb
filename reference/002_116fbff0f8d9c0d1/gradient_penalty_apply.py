import scalargrad as torch
# Reference program: 002_116fbff0f8d9c0d1.txt, "예제 3: GAN 학습 - Gradient
# Penalty", probe variant (not in the document, and not a correction): the
# document's GradientPenaltyHook unchanged, called the supported way
# (GradientPenaltyHook.apply) on two small stand-in tensors that require grad
# (the document gives no images, only `...`), followed by a backward pass.
# It records how PyTorch treats this Function's backward(). No sensible
# correction of this Function exists: a gradient penalty is computed with
# torch.autograd.grad(..., create_graph=True) in the loss, not inside a
# Function's backward().


class GradientPenaltyHook(torch.autograd.Function):
    @staticmethod
    def forward(ctx, real_images, fake_images):
        return real_images, fake_images

    @staticmethod
    def backward(ctx, grad_outputs):
        real_images, fake_images = ctx.saved_tensors
        lambda_ = 10.0
        gradients = torch.cat((real_images.grad, fake_images.grad), dim=0)
        penalty = lambda_ * ((gradients.norm(2, dim=1) - 1)**2).mean()
        penalty.backward()
        return None, None


real_images = torch.tensor(1.0, requires_grad=True)  # stand-in for `...`
fake_images = torch.tensor(2.0, requires_grad=True)  # stand-in for `...`
real_out, fake_out = GradientPenaltyHook.apply(real_images, fake_images)
print('real_out', real_out)
print('fake_out', fake_out)
(real_out + fake_out).backward()
print('real_images.grad', real_images.grad)
